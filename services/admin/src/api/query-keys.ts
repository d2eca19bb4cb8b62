/**
 * Every cache key the panel uses, in one place, so a screen that changes something can invalidate
 * exactly what shows it. Keys are hierarchical: invalidating `webhooks.all` refreshes every webhook view.
 */
export const queryKeys = {
  session: ['session'] as const,
  projects: ['projects'] as const,
  user: (projectId: string, ref: string) => ['projects', projectId, 'users', ref] as const,
  userMessages: (projectId: string, email: string) => ['projects', projectId, 'messages', { email }] as const,
  userPayments: (projectId: string, email: string) => ['projects', projectId, 'payments', { email }] as const,
  webhooks: {
    all: ['webhooks'] as const,
    one: (webhookId: string) => ['webhooks', webhookId] as const,
    deliveries: (webhookId: string, filters: { status?: string; event_type?: string }) =>
      ['webhooks', webhookId, 'deliveries', filters] as const,
  },
};
