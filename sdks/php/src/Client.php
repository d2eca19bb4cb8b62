<?php

declare(strict_types=1);

namespace Postbus;

use Postbus\Http\CurlTransport;
use Postbus\Http\Transport;
use Postbus\Internal\Requester;
use Postbus\Resource\Emails;
use Postbus\Resource\Layouts;
use Postbus\Resource\Messages;
use Postbus\Resource\Payments;
use Postbus\Resource\Suppressions;
use Postbus\Resource\Templates;
use Postbus\Resource\Users;

/**
 * The Postbus API client.
 *
 *     $postbus = new Postbus\Client($clientId, $apiKey, ['base_url' => 'https://postbus.example.com']);
 *     $postbus->emails->send($projectId, 'welcome', ['email' => 'ada@example.com'], ['code' => '4711']);
 *     $postbus->emails->sendContent($projectId, ['to' => 'ada@example.com', 'subject' => 'Hi', 'text' => 'Hello']);
 *
 * Options (all optional):
 * - base_url (string): the gateway, default http://localhost:8080
 * - timeout (float): seconds per try, default 30; connect_timeout (float): default 10
 * - max_retries (int): retries after the first try, default 3; 0 disables retrying
 * - retry_base_delay / retry_max_delay (float): the backoff, default 0.5 s doubling up to 8 s
 * - max_retry_after (float): the longest Retry-After wait honoured, default 60 s; longer fails at once
 * - transport (Http\Transport): default Http\CurlTransport
 * - sleep (callable(float): void), clock (callable(): int), random (callable(): float in [0, 1)): for tests
 */
final class Client
{
    public const VERSION = '0.1.0';

    private const OPTIONS = [
        'base_url', 'timeout', 'connect_timeout', 'max_retries', 'retry_base_delay', 'retry_max_delay',
        'max_retry_after', 'transport', 'sleep', 'clock', 'random',
    ];

    public readonly Emails $emails;
    public readonly Users $users;
    public readonly Payments $payments;
    public readonly Messages $messages;
    public readonly Suppressions $suppressions;
    public readonly Templates $templates;
    public readonly Layouts $layouts;

    /** @param array<string, mixed> $options */
    public function __construct(string $clientId, string $apiKey, array $options = [])
    {
        if ($clientId === '' || $apiKey === '') {
            throw new \InvalidArgumentException('Postbus\Client needs a client id and an API key.');
        }
        $unknown = array_diff(array_keys($options), self::OPTIONS);
        if ($unknown !== []) {
            // A misspelt option would otherwise be ignored silently.
            throw new \InvalidArgumentException('Unknown Postbus\Client option(s): ' . implode(', ', $unknown));
        }
        $transport = $options['transport'] ?? new CurlTransport();
        if (!$transport instanceof Transport) {
            throw new \InvalidArgumentException('The transport option must implement Postbus\Http\Transport.');
        }
        $baseUrl = rtrim((string) ($options['base_url'] ?? 'http://localhost:8080'), '/');
        // Tolerate a base URL given with the version path, as it appears in the OpenAPI document.
        if (str_ends_with($baseUrl, '/v1')) {
            $baseUrl = substr($baseUrl, 0, -3);
        }
        $requester = new Requester(
            baseUrl: $baseUrl,
            authorization: 'Basic ' . base64_encode($clientId . ':' . $apiKey),
            userAgent: 'postbus-php/' . self::VERSION . ' PHP/' . PHP_VERSION,
            transport: $transport,
            timeout: (float) ($options['timeout'] ?? 30.0),
            connectTimeout: (float) ($options['connect_timeout'] ?? 10.0),
            maxRetries: max(0, (int) ($options['max_retries'] ?? 3)),
            retryBaseDelay: (float) ($options['retry_base_delay'] ?? 0.5),
            retryMaxDelay: (float) ($options['retry_max_delay'] ?? 8.0),
            maxRetryAfter: (float) ($options['max_retry_after'] ?? 60.0),
            sleep: $options['sleep'] ?? static function (float $seconds): void {
                if ($seconds > 0) {
                    usleep((int) round($seconds * 1_000_000));
                }
            },
            clock: $options['clock'] ?? static fn (): int => time(),
            random: $options['random'] ?? static fn (): float => random_int(0, PHP_INT_MAX - 1) / PHP_INT_MAX,
        );
        $this->emails = new Emails($requester);
        $this->users = new Users($requester);
        $this->payments = new Payments($requester);
        $this->messages = new Messages($requester);
        $this->suppressions = new Suppressions($requester);
        $this->templates = new Templates($requester);
        $this->layouts = new Layouts($requester);
    }
}
