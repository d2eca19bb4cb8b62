<?php

declare(strict_types=1);

namespace Postbus\Tests\Support;

use Postbus\Client;

/** A client on a fake transport whose sleeps are recorded instead of waited. */
final class ClientFactory
{
    /** @var list<float> */
    public array $sleeps = [];

    public Client $client;

    /** @param array<string, mixed> $options */
    public function __construct(public FakeTransport $transport, array $options = [])
    {
        $this->client = new Client('client_1', 'key_secret', $options + [
            'base_url' => 'https://postbus.test',
            'transport' => $transport,
            'sleep' => function (float $seconds): void {
                $this->sleeps[] = $seconds;
            },
            'clock' => static fn (): int => 1_800_000_000,
            'random' => static fn (): float => 0.5,
        ]);
    }

    /**
     * @param list<\Postbus\Http\Response|\Throwable> $script
     * @param array<string, mixed>                    $options
     */
    public static function answering(array $script, array $options = []): self
    {
        return new self(new FakeTransport($script), $options);
    }
}
