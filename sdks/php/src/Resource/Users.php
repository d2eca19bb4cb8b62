<?php

declare(strict_types=1);

namespace Postbus\Resource;

use Postbus\Internal\Requester;

/** Users (contacts) of a project: the data-plane writes and the profile read. */
final class Users
{
    /** @internal */
    public function __construct(private Requester $requester)
    {
    }

    /**
     * Creates (or registers) a user: POST /v1/projects/{projectId}/users.
     *
     * @param array<string, mixed> $user    email (required), user_id, fields (standard attributes and custom fields)
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array<string, mixed> {status: "accepted", request_id}
     */
    public function create(string $projectId, array $user, array $options = []): array
    {
        if (isset($user['fields']) && is_array($user['fields'])) {
            $user['fields'] = Json::object($user['fields']);
        }
        return $this->requester->request('POST', ['projects', $projectId, 'users'], [], $user, $options);
    }

    /**
     * Updates a user found by email: PATCH /v1/projects/{projectId}/users/by-email with {email, fields}.
     * A field set to null is removed.
     *
     * @param array<string, mixed> $fields
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> {status: "accepted", request_id}
     */
    public function updateByEmail(string $projectId, string $email, array $fields, array $options = []): array
    {
        $body = ['email' => $email, 'fields' => Json::object($fields)];
        return $this->requester->request('PATCH', ['projects', $projectId, 'users', 'by-email'], [], $body, $options);
    }

    /**
     * Updates a user found by your user_id: PATCH /v1/projects/{projectId}/users/{userId} with {fields}.
     *
     * @param array<string, mixed> $fields
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> {status: "accepted", request_id}
     */
    public function updateByUserId(string $projectId, string $userId, array $fields, array $options = []): array
    {
        $body = ['fields' => Json::object($fields)];
        return $this->requester->request('PATCH', ['projects', $projectId, 'users', $userId], [], $body, $options);
    }

    /**
     * Unsubscribes a user: POST /v1/projects/{projectId}/users/unsubscribe.
     *
     * @param array<string, mixed> $user    email or user_id, and optionally reason
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array<string, mixed> {status: "accepted", request_id}
     */
    public function unsubscribe(string $projectId, array $user, array $options = []): array
    {
        return $this->requester->request('POST', ['projects', $projectId, 'users', 'unsubscribe'], [], $user, $options);
    }

    /**
     * Queues a user for erasure: POST /v1/projects/{projectId}/users/erase. No mail goes out from now on.
     *
     * @param array<string, mixed> $user    email or user_id
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array<string, mixed> {status: "accepted", request_id, erasure_id, erase_at}
     */
    public function erase(string $projectId, array $user, array $options = []): array
    {
        return $this->requester->request('POST', ['projects', $projectId, 'users', 'erase'], [], $user, $options);
    }

    /**
     * Reads a user profile: GET /v1/projects/{projectId}/users?email=… or GET …/users/{userId}.
     * Needs a key of scope "full".
     *
     * @param array<string, mixed> $user    ['email' => …] or ['user_id' => …]
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> the profile: email, user_id, name, …, fields, subscription, erasure, timestamps
     */
    public function get(string $projectId, array $user, array $options = []): array
    {
        if (isset($user['email']) && is_string($user['email'])) {
            $query = ['email' => $user['email']];
            return $this->requester->request('GET', ['projects', $projectId, 'users'], $query, null, $options);
        }
        if (isset($user['user_id']) && is_string($user['user_id'])) {
            $path = ['projects', $projectId, 'users', $user['user_id']];
            return $this->requester->request('GET', $path, [], null, $options);
        }
        throw new \InvalidArgumentException('Postbus users->get() needs ["email" => …] or ["user_id" => …].');
    }
}
