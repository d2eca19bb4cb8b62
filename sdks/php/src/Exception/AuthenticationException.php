<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 401: no credentials, or the client id and API key are wrong or revoked.
 */
class AuthenticationException extends ApiException
{
}
