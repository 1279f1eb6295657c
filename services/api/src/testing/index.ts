// Test helpers of @bda/api (`@bda/api/testing`), for its own tests and the end-to-end suite.
export * from './runes-schemas';
