export * from './env';
export * from './runes-router';
