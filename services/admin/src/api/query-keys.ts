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
  senderDomains: ['sender-domains'] as const,
  trackingDomains: ['tracking-domains'] as const,
  templates: (projectId: string) => ['projects', projectId, 'templates'] as const,
  template: (projectId: string, templateId: string, version?: number) =>
    ['projects', projectId, 'templates', templateId, { version }] as const,
  templateVersions: (projectId: string, templateId: string) => ['projects', projectId, 'templates', templateId, 'versions'] as const,
  layouts: (projectId: string) => ['projects', projectId, 'layouts'] as const,
  layout: (projectId: string, layoutId: string, version?: number) => ['projects', projectId, 'layouts', layoutId, { version }] as const,
  layoutVersions: (projectId: string, layoutId: string) => ['projects', projectId, 'layouts', layoutId, 'versions'] as const,
  emails: (projectId: string) => ['projects', projectId, 'emails'] as const,
  messageLog: (projectId: string, query: Record<string, string | undefined>) => ['projects', projectId, 'messages', 'log', query] as const,
  messageContent: (projectId: string, messageId: string) => ['projects', projectId, 'messages', messageId, 'content'] as const,
  messageStats: (projectId: string, from: string, to: string) => ['projects', projectId, 'messages', 'stats', { from, to }] as const,
  revenue: (projectId: string, from: string, to: string) => ['projects', projectId, 'revenue', { from, to }] as const,
  /** Everything read of a project's suppression list: the screen's pages and each address's state. */
  suppressions: (projectId: string) => ['projects', projectId, 'suppressions'] as const,
  suppressionList: (projectId: string, query: Record<string, string | undefined>) =>
    ['projects', projectId, 'suppressions', 'list', query] as const,
  suppression: (projectId: string, email: string) => ['projects', projectId, 'suppressions', { email }] as const,
  erasures: (filters: { status?: string; project_id?: string; cursor?: string }) => ['erasures', filters] as const,
  apiKeys: ['keys'] as const,
  webhooks: {
    all: ['webhooks'] as const,
    one: (webhookId: string) => ['webhooks', webhookId] as const,
    deliveries: (webhookId: string, filters: { status?: string; event_type?: string }) =>
      ['webhooks', webhookId, 'deliveries', filters] as const,
  },
};
