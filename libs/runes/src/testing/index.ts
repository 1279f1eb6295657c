// Test helpers of @bda/runes (`@bda/runes/testing`): real Bitcoin blocks carrying runestones, built or generated.
export * from './bitcoin-block-builder';
export * from './random-rune-blocks';
