export * from './fence-keys';
export * from './fence-writer';
export * from './fence-holder';
