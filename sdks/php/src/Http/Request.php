<?php

declare(strict_types=1);

namespace Postbus\Http;

/** One HTTP request as a transport sends it. */
final class Request
{
    /**
     * @param array<string, string> $headers
     * @param float                 $timeout seconds for the whole exchange
     */
    public function __construct(
        public readonly string $method,
        public readonly string $url,
        public readonly array $headers,
        public readonly ?string $body,
        public readonly float $timeout,
        public readonly float $connectTimeout,
    ) {
    }

    /** A header's value, the name matched in any case. */
    public function header(string $name): ?string
    {
        foreach ($this->headers as $key => $value) {
            if (strcasecmp($key, $name) === 0) {
                return $value;
            }
        }
        return null;
    }
}
