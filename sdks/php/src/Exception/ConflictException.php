<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 409: a conflict, e.g. a request with the same Idempotency-Key is still in flight (retried
 * automatically first; getSlug() is then "idempotency-in-flight"), or removing a complaint's
 * suppression, which stays ("suppression-is-a-complaint").
 */
class ConflictException extends ApiException
{
}
