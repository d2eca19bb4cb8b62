<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 422 for an unmet prerequisite, e.g. the sender domain of the project is not verified yet;
 * getDetail() says which step is missing.
 */
class PrerequisiteException extends ValidationException
{
}
