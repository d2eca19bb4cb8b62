<?php

declare(strict_types=1);

/*
 * A webhook endpoint in plain PHP. Try it with the built-in server:
 *
 *   POSTBUS_WEBHOOK_SECRET=whsec_… php -S 127.0.0.1:8000 examples/webhook-receiver.php
 *
 * and point a Postbus webhook at http://127.0.0.1:8000/ (POST /v1/webhooks, then POST /v1/webhooks/{id}/test).
 */

// With Composer: require __DIR__ . '/vendor/autoload.php';
require __DIR__ . '/../autoload.php';

use Postbus\Exception\WebhookVerificationException;
use Postbus\Webhook;

if ($_SERVER['REQUEST_METHOD'] !== 'POST') {
    http_response_code(405);
    header('Allow: POST');
    return;
}

// The raw body exactly as sent: the signature covers these bytes, not a re-encoded array.
$body = (string) file_get_contents('php://input');
// getallheaders() is there under Apache, FPM and the built-in server; $_SERVER works everywhere.
$headers = function_exists('getallheaders') ? getallheaders() : $_SERVER;
// During a secret rotation, give the old and the new secret: either verifies.
$secrets = array_values(array_filter(explode(',', (string) getenv('POSTBUS_WEBHOOK_SECRET'))));

try {
    $event = Webhook::verify($body, $headers, $secrets);
} catch (WebhookVerificationException $e) {
    http_response_code(400);
    error_log('Refused a webhook: ' . $e->getReason());
    return;
}

// Answer quickly (2xx); do slow work later. Postbus retries a delivery that failed, so the same
// webhook-id can arrive twice: remember the ids you have handled.
switch ($event['type'] ?? '') {
    case 'message.sent':
    case 'message.bounced':
    case 'message.suppressed':
        error_log("Postbus {$event['type']} for message " . ($event['data']['message_id'] ?? '?'));
        break;
    case 'user.unsubscribed':
        // e.g. mirror the unsubscription in your own database
        break;
    default:
        // Ignore event types you do not handle: new ones may be added.
        break;
}
http_response_code(204);
