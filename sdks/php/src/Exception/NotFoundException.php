<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * 404: the project, email, user or message does not exist, or belongs to another client (the API
 * never says which).
 */
class NotFoundException extends ApiException
{
}
