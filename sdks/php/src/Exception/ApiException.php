<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * The API answered with an error status. Carries the RFC 9457 problem body the gateway sent
 * (or one made up from the status when the body was not a problem).
 */
class ApiException extends PostbusException
{
    /** @var array<string, mixed> */
    private array $problem;

    /** @var array<string, string> */
    private array $headers;

    /**
     * @param array<string, mixed>  $problem the decoded problem+json body
     * @param array<string, string> $headers response headers, names in lower case
     */
    public function __construct(private int $status, array $problem, array $headers = [], ?\Throwable $previous = null)
    {
        $this->problem = $problem;
        $this->headers = $headers;
        parent::__construct(self::describe($status, $problem), $status, $previous);
    }

    public function getStatus(): int
    {
        return $this->status;
    }

    /** @return array<string, mixed> the whole problem body: type, title, status, detail, errors, request_id */
    public function getProblem(): array
    {
        return $this->problem;
    }

    /** The problem type, e.g. "/problems/validation-failed"; "about:blank" when the body named none. */
    public function getType(): string
    {
        $type = $this->problem['type'] ?? null;
        return is_string($type) ? $type : 'about:blank';
    }

    /** The last segment of the problem type, e.g. "validation-failed" or "idempotency-in-flight". */
    public function getSlug(): string
    {
        $type = $this->getType();
        $slash = strrpos($type, '/');
        return $slash === false ? $type : substr($type, $slash + 1);
    }

    public function getTitle(): ?string
    {
        $title = $this->problem['title'] ?? null;
        return is_string($title) ? $title : null;
    }

    public function getDetail(): ?string
    {
        $detail = $this->problem['detail'] ?? null;
        return is_string($detail) ? $detail : null;
    }

    /** The gateway's request id (quote it when reporting a problem): from the body, else the X-Request-Id header. */
    public function getRequestId(): ?string
    {
        $id = $this->problem['request_id'] ?? ($this->headers['x-request-id'] ?? null);
        return is_string($id) ? $id : null;
    }

    /**
     * Field-level errors, each with a JSON pointer into the request body (e.g. "/user/email").
     *
     * @return list<array{pointer: string, message: string}>
     */
    public function getErrors(): array
    {
        $errors = $this->problem['errors'] ?? [];
        if (!is_array($errors)) {
            return [];
        }
        $list = [];
        foreach ($errors as $error) {
            if (is_array($error)) {
                $list[] = [
                    'pointer' => is_string($error['pointer'] ?? null) ? $error['pointer'] : '',
                    'message' => is_string($error['message'] ?? null) ? $error['message'] : '',
                ];
            }
        }
        return $list;
    }

    /** @return array<string, string> response headers, names in lower case */
    public function getHeaders(): array
    {
        return $this->headers;
    }

    /** @param array<string, mixed> $problem */
    private static function describe(int $status, array $problem): string
    {
        $text = is_string($problem['detail'] ?? null) ? $problem['detail']
            : (is_string($problem['title'] ?? null) ? $problem['title'] : 'The API answered with an error');
        return sprintf('Postbus API error %d: %s', $status, $text);
    }
}
