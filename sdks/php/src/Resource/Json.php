<?php

declare(strict_types=1);

namespace Postbus\Resource;

/** @internal */
final class Json
{
    /**
     * PHP encodes an empty array as [] but the API wants an object there: {}.
     *
     * @param array<string, mixed> $value
     * @return array<string, mixed>|\stdClass
     */
    public static function object(array $value): array|\stdClass
    {
        return $value === [] ? new \stdClass() : $value;
    }
}
