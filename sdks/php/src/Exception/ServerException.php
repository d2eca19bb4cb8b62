<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 5xx (after the retries are used up), or a success status whose body is not JSON.
 */
class ServerException extends ApiException
{
}
