// Test helpers of @bda/indexer (`@bda/indexer/testing`), for its own tests and the end-to-end suite.
export * from './runes-support';
