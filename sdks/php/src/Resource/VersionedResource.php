<?php

declare(strict_types=1);

namespace Postbus\Resource;

use Postbus\Internal\Requester;

/**
 * What templates and layouts share: every save appends a numbered version, published at once
 * unless it is a draft; sends use the published version, and any version can be published again
 * (a rollback). Needs a key of scope "full".
 */
abstract class VersionedResource
{
    /** The path segment of the collection: "templates" or "layouts". */
    protected const COLLECTION = '';

    /** @internal */
    public function __construct(protected Requester $requester)
    {
    }

    /**
     * Creates one, as version 1, published: POST /v1/projects/{projectId}/{templates|layouts}.
     *
     * @param array<string, mixed> $body    its name and content (see the class's own summary)
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array<string, mixed> what it is now: id, name, version, latest_version, published_version, saved_by, …
     */
    public function create(string $projectId, array $body, array $options = []): array
    {
        return $this->requester->request('POST', $this->path($projectId), [], $this->content($body), $options);
    }

    /**
     * Lists them, each its newest version, oldest first: GET /v1/projects/{projectId}/{templates|layouts}.
     *
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> {data: [...]}
     */
    public function list(string $projectId, array $options = []): array
    {
        return $this->requester->request('GET', $this->path($projectId), [], null, $options);
    }

    /**
     * Reads one: its newest version (a draft when one is ahead of the published one), or $version.
     *
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed>
     */
    public function get(string $projectId, string $id, ?int $version = null, array $options = []): array
    {
        return $this->requester->request('GET', $this->path($projectId, $id), ['version' => $version], null, $options);
    }

    /**
     * Saves a new version: PUT …/{id}. Published at once, or with 'draft' => true kept unpublished
     * (sends keep the published version until publish()). A retry after a lost answer may save the
     * same content once more, as one more version.
     *
     * @param array<string, mixed> $body    as create() takes it, and draft (bool)
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> the new version
     */
    public function save(string $projectId, string $id, array $body, array $options = []): array
    {
        return $this->requester->request('PUT', $this->path($projectId, $id), [], $this->content($body), $options);
    }

    /**
     * Lists the versions, newest first (at most 500): GET …/{id}/versions.
     *
     * @param array<string, mixed> $options timeout, max_retries
     * @return array<string, mixed> {data: [{version, created_at, saved_by: {key_id, via} or null, published}, ...]}
     */
    public function versions(string $projectId, string $id, array $options = []): array
    {
        return $this->requester->request('GET', [...$this->path($projectId, $id), 'versions'], [], null, $options);
    }

    /**
     * Publishes version $version: a draft goes live, or an older version comes back (a rollback):
     * POST …/{id}/versions/{version}/publish.
     *
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array<string, mixed> the version published
     */
    public function publish(string $projectId, string $id, int $version, array $options = []): array
    {
        return $this->requester->request('POST', [...$this->path($projectId, $id), 'versions', (string) $version, 'publish'], [], null, $options);
    }

    /**
     * Deletes one with all its versions: DELETE …/{id}.
     *
     * @param array<string, mixed> $options timeout, max_retries
     */
    public function delete(string $projectId, string $id, array $options = []): void
    {
        $this->requester->request('DELETE', $this->path($projectId, $id), [], null, $options);
    }

    /** @return list<string> */
    protected function path(string $projectId, ?string $id = null): array
    {
        return $id === null ? ['projects', $projectId, static::COLLECTION] : ['projects', $projectId, static::COLLECTION, $id];
    }

    /**
     * A body as the API takes it (e.g. lists kept lists).
     *
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    protected function content(array $body): array
    {
        return $body;
    }
}
