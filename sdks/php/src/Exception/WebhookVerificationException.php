<?php

declare(strict_types=1);

namespace Postbus\Exception;

/**
 * A webhook request that must not be trusted: answer it with 400 and do not act on it.
 * getReason() says why: "headers" (a webhook-* header is missing), "timestamp" (unparsable, or
 * outside the tolerance: a replay or a badly wrong clock), "signature" (no v1 signature matches any
 * secret), "payload" (signed, but not a JSON object), "secret" (a secret that is not whsec_<base64>).
 */
final class WebhookVerificationException extends PostbusException
{
    public function __construct(string $message, private string $reason)
    {
        parent::__construct($message);
    }

    public function getReason(): string
    {
        return $this->reason;
    }
}
