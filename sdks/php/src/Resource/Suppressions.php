<?php

declare(strict_types=1);

namespace Postbus\Resource;

use Postbus\Internal\Requester;

/**
 * The suppression list: the addresses of a project that get no mail, and why. Needs a key of scope
 * "full". A send to a suppressed address is accepted and becomes a message of status "suppressed".
 */
final class Suppressions
{
    /** @internal */
    public function __construct(private Requester $requester)
    {
    }

    /**
     * Lists suppressions, newest first: GET /v1/projects/{projectId}/suppressions.
     *
     * @param array<string, mixed> $query   email, reason (hard_bounce, soft_bounce_limit, complaint,
     *                                      unsubscribed, manual), limit, cursor
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> a page: {data: [{email, reason, created_at, message_id, reasons: [{reason,
     *                              created_at, message_id}, ...]}, ...], next_cursor}; reason: the strongest
     */
    public function list(string $projectId, array $query = [], array $options = []): array
    {
        return $this->requester->request('GET', ['projects', $projectId, 'suppressions'], $query, null, $options);
    }

    /**
     * Suppresses an address for every email of the project (reason "manual"):
     * POST /v1/projects/{projectId}/suppressions with {email, reason: "manual"}.
     *
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array<string, mixed> {status: "accepted", request_id}
     */
    public function add(string $projectId, string $email, array $options = []): array
    {
        $body = ['email' => $email, 'reason' => 'manual'];
        return $this->requester->request('POST', ['projects', $projectId, 'suppressions'], [], $body, $options);
    }

    /**
     * Lifts a suppression, so that a later send mails the address again:
     * DELETE /v1/projects/{projectId}/suppressions/{email}. A NotFoundException when the address is not
     * suppressed; a ConflictException (getSlug() "suppression-is-a-complaint") for a complaint, which
     * stays. Lifting an unsubscribe subscribes the user again: the caller asserts the recipient consented.
     *
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> {status: "accepted", request_id}
     */
    public function remove(string $projectId, string $email, array $options = []): array
    {
        return $this->requester->request('DELETE', ['projects', $projectId, 'suppressions', $email], [], null, $options);
    }
}
