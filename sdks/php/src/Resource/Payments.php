<?php

declare(strict_types=1);

namespace Postbus\Resource;

use Postbus\Internal\Requester;

/** Payments of a project's users. */
final class Payments
{
    /** @internal */
    public function __construct(private Requester $requester)
    {
    }

    /**
     * Records a payment: POST /v1/projects/{projectId}/payments. A repeated payment_id is recorded once.
     *
     * @param array<string, mixed> $payment email or user_id, payment_id, amount (integer, minor units),
     *                                      currency (ISO 4217), paid_at?, description?, metadata?
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array<string, mixed> {status: "accepted", request_id}
     */
    public function record(string $projectId, array $payment, array $options = []): array
    {
        if (isset($payment['metadata']) && is_array($payment['metadata'])) {
            $payment['metadata'] = Json::object($payment['metadata']);
        }
        return $this->requester->request('POST', ['projects', $projectId, 'payments'], [], $payment, $options);
    }

    /**
     * Lists a user's payments: GET /v1/projects/{projectId}/payments?email=|user_id=&limit=&cursor=.
     * Needs a key of scope "full".
     *
     * @param array<string, mixed> $query   email or user_id; limit, cursor
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> a page: {data: [...], next_cursor}
     */
    public function list(string $projectId, array $query, array $options = []): array
    {
        return $this->requester->request('GET', ['projects', $projectId, 'payments'], $query, null, $options);
    }

    /**
     * Revenue per currency between two UTC days: GET /v1/projects/{projectId}/analytics/revenue?from=&to=.
     *
     * @param string               $from    YYYY-MM-DD
     * @param string               $to      YYYY-MM-DD
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed>
     */
    public function revenue(string $projectId, string $from, string $to, array $options = []): array
    {
        $path = ['projects', $projectId, 'analytics', 'revenue'];
        return $this->requester->request('GET', $path, ['from' => $from, 'to' => $to], null, $options);
    }
}
