<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 422 idempotency-key-reused: this Idempotency-Key was already used with a different request body
 * within 24 hours.
 */
class IdempotencyKeyReusedException extends ValidationException
{
}
