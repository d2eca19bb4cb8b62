export { collectMessage } from './collect-message';
