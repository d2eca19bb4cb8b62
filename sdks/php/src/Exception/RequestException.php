<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * Any other refused request: 413 (body over the size limit), 415 (not JSON) and 4xx statuses
 * without a type of their own.
 */
class RequestException extends ApiException
{
}
