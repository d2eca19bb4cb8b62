<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 400 (malformed or invalid request), 413 (body over the size limit), 415 (not JSON) and 422 (the
 * request cannot be processed as it stands), as the TypeScript SDK's ValidationError. getErrors()
 * lists the fields at fault with JSON pointers. Retrying the same request cannot succeed.
 */
class ValidationException extends ApiException
{
}
