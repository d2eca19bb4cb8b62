<?php

declare(strict_types=1);

/*
 * Sends a transactional email.
 *
 *   POSTBUS_BASE_URL=http://localhost:8080 POSTBUS_CLIENT_ID=… POSTBUS_API_KEY=… \
 *   POSTBUS_PROJECT_ID=… POSTBUS_EMAIL_KEY=welcome php examples/send.php ada@example.com Ada
 */

// With Composer: require __DIR__ . '/vendor/autoload.php';
require __DIR__ . '/../autoload.php';

use Postbus\Client;
use Postbus\Exception\PostbusException;
use Postbus\Exception\ValidationException;

$env = static function (string $name, ?string $default = null): string {
    $value = getenv($name);
    if ($value === false || $value === '') {
        if ($default !== null) {
            return $default;
        }
        fwrite(STDERR, "Set $name (see the comment at the top of this file).\n");
        exit(2);
    }
    return $value;
};

$recipient = $argv[1] ?? null;
if ($recipient === null) {
    fwrite(STDERR, "Usage: php examples/send.php <email> [name]\n");
    exit(2);
}

$postbus = new Client($env('POSTBUS_CLIENT_ID'), $env('POSTBUS_API_KEY'), [
    'base_url' => $env('POSTBUS_BASE_URL', 'http://localhost:8080'),
]);

try {
    $accepted = $postbus->emails->send(
        $env('POSTBUS_PROJECT_ID'),
        $env('POSTBUS_EMAIL_KEY', 'welcome'),
        ['email' => $recipient, 'name' => $argv[2] ?? 'there'],
        ['code' => (string) random_int(1000, 9999)],
    );
    echo "accepted, request_id: {$accepted['request_id']}, message_id: {$accepted['message_id']}\n";
} catch (ValidationException $e) {
    foreach ($e->getErrors() as $error) {
        fwrite(STDERR, "invalid {$error['pointer']}: {$error['message']}\n");
    }
    fwrite(STDERR, $e->getMessage() . ' (request ' . ($e->getRequestId() ?? '-') . ")\n");
    exit(1);
} catch (PostbusException $e) {
    // Retries are already used up here: connection errors, 429 and 5xx were retried with the same Idempotency-Key.
    fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n");
    exit(1);
}
