<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * The request took longer than the timeout option (after the retries are used up). A kind of
 * ConnectionException.
 */
class TimeoutException extends ConnectionException
{
}
