export * from './topics';
export * from './common';
export * from './http';
export * from './messages';
export * from './webhooks';
export * from './payments';
export * from './erasure';
export * from './auth';
