export { namesRouter } from './names-router';
