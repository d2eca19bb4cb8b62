<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * The one type every error of this SDK extends: `catch (PostbusException $e)` catches them all.
 */
class PostbusException extends \RuntimeException
{
}
