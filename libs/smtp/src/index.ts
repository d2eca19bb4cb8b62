export { collectMessage } from './collect-message';
export type {
  MailpitAddress,
  MailpitAttachment,
  MailpitBodies,
  MailpitHeaderView,
  MailpitList,
  MailpitMessage,
  MailpitSummary,
} from './mailpit';
