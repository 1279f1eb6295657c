export { attachLive, type Live } from './attach-live';
export { SLOW_CONSUMER_CLOSE_CODE } from './live-limits';
export { LIVE_CHANNEL, type LiveAnnouncement } from './live-announcements';
