<?php

declare(strict_types=1);

namespace Postbus\Http;

/** One HTTP response as a transport received it. */
final class Response
{
    /** @var array<string, string> names in lower case; a repeated header's values joined with ", " */
    public readonly array $headers;

    /** @param array<string, string> $headers */
    public function __construct(public readonly int $status, array $headers, public readonly string $body)
    {
        $lower = [];
        foreach ($headers as $name => $value) {
            $lower[strtolower($name)] = $value;
        }
        $this->headers = $lower;
    }

    public function header(string $name): ?string
    {
        return $this->headers[strtolower($name)] ?? null;
    }
}
