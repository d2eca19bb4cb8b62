import type { PaymentList, Revenue, UserRef } from '@postbus/contracts';
import type { InternalTokens } from '@postbus/http';
import { InternalApiClient, projectPath } from './internal-api-client';

/** Reads payments and revenue from the payments service's internal API. */
export class PaymentsClient extends InternalApiClient {
  constructor(baseUrl: string, tokens: InternalTokens, timeoutMs?: number) {
    super('payments', 'payments', baseUrl, tokens, timeoutMs);
  }

  /** A page of a user's payments, newest first (none for a user or project the service has not seen). */
  async listPayments(projectId: string, user: UserRef, page: { limit?: number; cursor?: string } = {}): Promise<PaymentList> {
    const list = await this.get<PaymentList>(`${projectPath(projectId)}/payments`, {
      email: user.email,
      user_id: user.userId,
      limit: page.limit,
      cursor: page.cursor,
    });
    return list ?? { data: [], next_cursor: null };
  }

  async revenue(projectId: string, from: string, to: string): Promise<Revenue> {
    const revenue = await this.get<Revenue>(`${projectPath(projectId)}/revenue`, { from, to });
    return revenue ?? { from, to, currencies: [], paying_users: 0, days: [] };
  }
}
