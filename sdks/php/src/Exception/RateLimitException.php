<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 429: too many requests (after the retries are used up, or when Retry-After asks for a longer
 * wait than the client's max_retry_after option allows).
 */
class RateLimitException extends ApiException
{
    /**
     * @param array<string, mixed>  $problem
     * @param array<string, string> $headers
     */
    public function __construct(int $status, array $problem, array $headers = [], private ?float $retryAfter = null)
    {
        parent::__construct($status, $problem, $headers);
    }

    /** Seconds the API asked to wait (Retry-After), or null when it did not say. */
    public function getRetryAfter(): ?float
    {
        return $this->retryAfter;
    }
}
