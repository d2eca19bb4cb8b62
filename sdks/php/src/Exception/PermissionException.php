<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 403: the key is valid but its scope does not allow the operation (an "sdk" key may only use the
 * data-plane operations).
 */
class PermissionException extends ApiException
{
}
