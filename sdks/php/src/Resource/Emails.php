<?php

declare(strict_types=1);

namespace Postbus\Resource;

use Postbus\Internal\Requester;

/** Sending transactional emails. */
final class Emails
{
    /** @internal */
    public function __construct(private Requester $requester)
    {
    }

    /**
     * Sends (triggers) a transactional email to one user: POST /v1/projects/{projectId}/emails/{emailKey}/send.
     * An unknown email address registers the user. Asynchronous: the answer means durably queued.
     *
     * @param string               $emailKey the email's key (e.g. "welcome") or id
     * @param array<string, mixed> $user     email (required), user_id, name, country, language, gender, age,
     *                                       and custom attributes
     * @param array<string, mixed> $data     template data, {{data.*}}
     * @param array<string, mixed> $options  idempotency_key, timeout, max_retries
     * @return array{status: string, request_id: string, message_id: string}&array<string, mixed>
     */
    public function send(string $projectId, string $emailKey, array $user, array $data = [], array $options = []): array
    {
        $body = ['user' => Json::object($user)];
        if ($data !== []) {
            $body['data'] = $data;
        }
        $path = ['projects', $projectId, 'emails', $emailKey, 'send'];
        return $this->requester->request('POST', $path, [], $body, $options);
    }
}
