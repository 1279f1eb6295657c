export { attachLive, WS_RPC_PATH, type Live, type LiveOptions } from './attach-live';
export { DEFAULT_LIVE_LIMITS, SLOW_CONSUMER_CLOSE_CODE, type LiveLimits } from './live-limits';
export { LIVE_CHANNEL, type LiveAnnouncement } from './live-announcements';
