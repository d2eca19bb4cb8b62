<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * Any other refused request: 4xx statuses without a type of their own.
 */
class RequestException extends ApiException
{
}
