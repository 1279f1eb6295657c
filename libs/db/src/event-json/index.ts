export * from './event-json';
