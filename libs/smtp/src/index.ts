export { collectMessage, collectMessageHead, type MessageHead } from './collect-message';
export { closeSmtp, listenSmtp } from './listen';
export {
  ConnectionBudget,
  ConnectionGuard,
  guardedSmtpServer,
  isSmtpReply,
  networkOf,
  smtpReply,
  type ConnectionGuardOptions,
  type ConnectionLimits,
  type SmtpReply,
} from './connection-limits';
export {
  BudgetedPool,
  OutOfMemoryError,
  OverBudgetError,
  budgetedTask,
  markStarted,
  type BudgetedPoolOptions,
  type BudgetedTask,
} from './budgeted-pool';
export { readCertificate, selfSignedCertificate, watchCertificate, type CertificateWatch, type TlsCertificate } from './certificate';
export type {
  MailpitAddress,
  MailpitAttachment,
  MailpitBodies,
  MailpitHeaderView,
  MailpitList,
  MailpitMessage,
  MailpitSummary,
} from './mailpit';
