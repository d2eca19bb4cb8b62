<?php

declare(strict_types=1);

namespace Postbus\Internal;

use Postbus\Exception\ApiException;
use Postbus\Exception\AuthenticationException;
use Postbus\Exception\ConflictException;
use Postbus\Exception\ConnectionException;
use Postbus\Exception\IdempotencyKeyReusedException;
use Postbus\Exception\NotFoundException;
use Postbus\Exception\PermissionException;
use Postbus\Exception\PrerequisiteException;
use Postbus\Exception\RateLimitException;
use Postbus\Exception\RequestException;
use Postbus\Exception\ServerException;
use Postbus\Exception\ValidationException;
use Postbus\Http\Request;
use Postbus\Http\Response;
use Postbus\Http\Transport;

/**
 * Sends API requests: credentials and headers, an Idempotency-Key per POST call, retries with
 * backoff, and the mapping of error answers to exceptions.
 *
 * @internal used by the resources; not part of the public API
 */
final class Requester
{
    /** @var \Closure(float): void */
    private \Closure $sleep;

    /** @var \Closure(): int */
    private \Closure $clock;

    /** @var \Closure(): float */
    private \Closure $random;

    /**
     * @param callable(float): void $sleep  waits that many seconds
     * @param callable(): int       $clock  unix time in seconds (for Retry-After as an HTTP date)
     * @param callable(): float     $random uniform in [0, 1) (the jitter)
     */
    public function __construct(
        private string $baseUrl,
        private string $authorization,
        private string $userAgent,
        private Transport $transport,
        private float $timeout,
        private float $connectTimeout,
        private int $maxRetries,
        private float $retryBaseDelay,
        private float $retryMaxDelay,
        private float $maxRetryAfter,
        callable $sleep,
        callable $clock,
        callable $random,
    ) {
        $this->sleep = \Closure::fromCallable($sleep);
        $this->clock = \Closure::fromCallable($clock);
        $this->random = \Closure::fromCallable($random);
    }

    /**
     * @param list<string>              $path    segments after /v1, each URL-encoded here
     * @param array<string, mixed>      $query
     * @param array<string, mixed>|null $body
     * @param array<string, mixed>      $options idempotency_key, timeout, max_retries
     * @return array<string, mixed> the decoded JSON answer
     */
    public function request(
        string $method,
        array $path,
        array $query = [],
        ?array $body = null,
        array $options = [],
    ): array {
        $unknown = array_diff(array_keys($options), ['idempotency_key', 'timeout', 'max_retries']);
        if ($unknown !== []) {
            // A misspelt idempotency_key would otherwise be dropped silently, and with it the caller's guarantee.
            throw new \InvalidArgumentException('Unknown Postbus call option(s): ' . implode(', ', $unknown));
        }
        $url = $this->baseUrl . '/v1/' . implode('/', array_map('rawurlencode', $path));
        $query = array_filter($query, static fn ($value): bool => $value !== null);
        // http_build_query writes a bool as 1 or 0; the API's booleans are true and false (test=true).
        $query = array_map(static fn ($value) => is_bool($value) ? ($value ? 'true' : 'false') : $value, $query);
        if ($query !== []) {
            $url .= '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
        }
        $headers = [
            'Authorization' => $this->authorization,
            'Accept' => 'application/json',
            'User-Agent' => $this->userAgent,
        ];
        $encoded = null;
        if ($body !== null) {
            $headers['Content-Type'] = 'application/json';
            try {
                $encoded = json_encode(
                    $body,
                    JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION,
                );
            } catch (\JsonException $e) {
                // Nothing was sent: a caller's mistake (e.g. a string that is not UTF-8), like a wrong argument.
                $why = 'The request body cannot be encoded as JSON: ' . $e->getMessage();
                throw new \InvalidArgumentException($why, 0, $e);
            }
        }
        if ($method === 'POST') {
            // Chosen once per call, before the first try: every retry carries the same key, so the
            // gateway runs the operation at most once however often the answer is lost.
            $key = $options['idempotency_key'] ?? null;
            $headers['Idempotency-Key'] = is_string($key) && $key !== '' ? $key : bin2hex(random_bytes(16));
        }
        $timeout = isset($options['timeout']) ? (float) $options['timeout'] : $this->timeout;
        $connectTimeout = min($this->connectTimeout, $timeout);
        $request = new Request($method, $url, $headers, $encoded, $timeout, $connectTimeout);

        $maxRetries = isset($options['max_retries']) ? max(0, (int) $options['max_retries']) : $this->maxRetries;
        for ($attempt = 0;; $attempt++) {
            try {
                $response = $this->transport->send($request);
            } catch (ConnectionException $e) {
                if ($attempt >= $maxRetries) {
                    throw $e;
                }
                ($this->sleep)($this->backoff($attempt));
                continue;
            }
            if ($response->status >= 200 && $response->status < 300) {
                return $this->decode($response);
            }
            $error = $this->errorFor($response);
            $wait = $this->retryDelay($response, $error, $attempt);
            if ($wait === null || $attempt >= $maxRetries) {
                throw $error;
            }
            ($this->sleep)($wait);
        }
    }

    /** @return array<string, mixed> */
    private function decode(Response $response): array
    {
        if ($response->status === 204 || $response->body === '') {
            return [];
        }
        try {
            $decoded = json_decode($response->body, true, 512, JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            $problem = self::madeUpProblem($response->status, 'The API answered with a body that is not JSON.');
            throw new ServerException($response->status, $problem, $response->headers, $e);
        }
        if (!is_array($decoded)) {
            $problem = self::madeUpProblem($response->status, 'The API answered with JSON that is not an object.');
            throw new ServerException($response->status, $problem, $response->headers);
        }
        return $decoded;
    }

    private function errorFor(Response $response): ApiException
    {
        $status = $response->status;
        $decoded = json_decode($response->body, true);
        $problem = is_array($decoded) && !array_is_list($decoded) ? $decoded : self::madeUpProblem($status, null);
        $headers = $response->headers;
        $slug = self::slug($problem);
        return match (true) {
            $status === 400, $status === 413, $status === 415 => new ValidationException($status, $problem, $headers),
            $status === 401 => new AuthenticationException($status, $problem, $headers),
            $status === 403 => new PermissionException($status, $problem, $headers),
            $status === 404 => new NotFoundException($status, $problem, $headers),
            $status === 409 => new ConflictException($status, $problem, $headers),
            $status === 422 && $slug === 'idempotency-key-reused'
                => new IdempotencyKeyReusedException($status, $problem, $headers),
            $status === 422 && ($problem['errors'] ?? null) !== null
                => new ValidationException($status, $problem, $headers),
            $status === 422 => new PrerequisiteException($status, $problem, $headers),
            $status === 429 => new RateLimitException($status, $problem, $headers, $this->retryAfter($response)),
            $status >= 500 => new ServerException($status, $problem, $headers),
            default => new RequestException($status, $problem, $headers),
        };
    }

    /** Seconds to wait before the next try, or null when this answer must not be retried. */
    private function retryDelay(Response $response, ApiException $error, int $attempt): ?float
    {
        $retryable = $response->status === 429
            || $response->status >= 500
            || ($response->status === 409 && $error->getSlug() === 'idempotency-in-flight');
        if (!$retryable) {
            return null;
        }
        $asked = $this->retryAfter($response);
        if ($asked === null) {
            return $this->backoff($attempt);
        }
        // A wait longer than the caller tolerates: better to tell them now than to block.
        return $asked > $this->maxRetryAfter ? null : $asked;
    }

    /** Exponential backoff with full jitter: uniform in [0, min(max, base * 2^attempt)). */
    private function backoff(int $attempt): float
    {
        $ceiling = min($this->retryMaxDelay, $this->retryBaseDelay * (2 ** $attempt));
        return $ceiling * ($this->random)();
    }

    /** Retry-After in seconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
    private function retryAfter(Response $response): ?float
    {
        $value = $response->header('retry-after');
        if ($value === null) {
            return null;
        }
        $value = trim($value);
        if (preg_match('/^\d+$/', $value) === 1) {
            return (float) $value;
        }
        $date = \DateTimeImmutable::createFromFormat(\DATE_RFC7231, $value, new \DateTimeZone('UTC'));
        if ($date === false) {
            $time = strtotime($value);
            if ($time === false) {
                return null;
            }
        } else {
            $time = $date->getTimestamp();
        }
        return (float) max(0, $time - ($this->clock)());
    }

    /** @param array<string, mixed> $problem */
    private static function slug(array $problem): string
    {
        $type = is_string($problem['type'] ?? null) ? $problem['type'] : '';
        $slash = strrpos($type, '/');
        return $slash === false ? $type : substr($type, $slash + 1);
    }

    /** @return array<string, mixed> */
    private static function madeUpProblem(int $status, ?string $detail): array
    {
        return ['type' => 'about:blank', 'title' => 'HTTP ' . $status, 'status' => $status]
            + ($detail === null ? [] : ['detail' => $detail]);
    }
}
