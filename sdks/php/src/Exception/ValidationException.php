<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 400 (malformed or invalid request) and 422 (the request cannot be processed as it stands).
 * getErrors() lists the fields at fault with JSON pointers. Retrying the same request cannot
 * succeed.
 */
class ValidationException extends ApiException
{
}
