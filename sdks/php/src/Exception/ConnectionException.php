<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * No answer from the API: DNS, connect, TLS or a connection dropped mid-request (after the retries
 * are used up).
 */
class ConnectionException extends PostbusException
{
}
