<?php

declare(strict_types=1);

namespace Postbus\Resource;

use Postbus\Internal\Requester;

/**
 * The message log: every email sent, with its status and event timeline. Needs a key of scope
 * "full", or "test" (a pb_test_ key), which reads only its test messages.
 */
final class Messages
{
    /** @internal */
    public function __construct(private Requester $requester)
    {
    }

    /**
     * Lists messages, newest first: GET /v1/projects/{projectId}/messages.
     *
     * @param array<string, mixed> $query   email, user_id, status, email_key, tag, from, to, test (true: only
     *                                       test messages, which the log leaves out otherwise), limit, cursor
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> a page: {data: [...], next_cursor}
     */
    public function list(string $projectId, array $query = [], array $options = []): array
    {
        return $this->requester->request('GET', ['projects', $projectId, 'messages'], $query, null, $options);
    }

    /**
     * One message with its timeline: GET /v1/projects/{projectId}/messages/{messageId}.
     *
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed>
     */
    public function get(string $projectId, string $messageId, array $options = []): array
    {
        return $this->requester->request('GET', ['projects', $projectId, 'messages', $messageId], [], null, $options);
    }

    /**
     * Cancels a scheduled message (one sent with send_at) before its time: POST
     * /v1/projects/{projectId}/messages/{messageId}/cancel. It becomes "canceled" and is never sent; a
     * ConflictException (409) once it is sent or being sent. A key of scope "sdk" may cancel too.
     *
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> the message, canceled
     */
    public function cancel(string $projectId, string $messageId, array $options = []): array
    {
        return $this->requester->request('POST', ['projects', $projectId, 'messages', $messageId, 'cancel'], [], null, $options);
    }
}
