export { collectMessage, collectMessageHead, type MessageHead } from './collect-message';
export type {
  MailpitAddress,
  MailpitAttachment,
  MailpitBodies,
  MailpitHeaderView,
  MailpitList,
  MailpitMessage,
  MailpitSummary,
} from './mailpit';
