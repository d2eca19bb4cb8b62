<?php

declare(strict_types=1);

namespace Postbus\Http;

use Postbus\Exception\ConnectionException;
use Postbus\Exception\TimeoutException;

/**
 * Sends one HTTP request, no retries: the client retries. Any HTTP status is a Response; only
 * the absence of an answer is an exception.
 */
interface Transport
{
    /**
     * @throws TimeoutException    when the request's timeout passed before the answer was complete
     * @throws ConnectionException when no answer came for any other reason
     */
    public function send(Request $request): Response;
}
