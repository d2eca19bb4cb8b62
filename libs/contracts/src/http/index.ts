/** The public HTTP contract's request and response bodies, by resource (docs/architecture.md#the-public-api). */
export * from './shared';
export * from './domains';
export * from './templates';
export * from './layouts';
export * from './emails';
export * from './sends';
export * from './sessions';
export * from './users';
export * from './projects';
export * from './messages';
export * from './suppressions';
