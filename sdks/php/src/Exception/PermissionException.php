<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 403: the key is valid but its scope does not allow the operation (an "sdk" key may only use the
 * data-plane operations; a "test" key may only send test messages and read them).
 */
class PermissionException extends ApiException
{
}
