<?php

declare(strict_types=1);

namespace Postbus\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Postbus\Client;
use Postbus\Exception\ConnectionException;
use Postbus\Exception\ServerException;
use Postbus\Exception\TimeoutException;
use Postbus\Http\CurlTransport;
use Postbus\Http\Request;
use Postbus\Tests\Support\LocalServer;

/** The real transport against a local `php -S` server. */
final class CurlTransportTest extends TestCase
{
    private static LocalServer $server;

    public static function setUpBeforeClass(): void
    {
        self::$server = new LocalServer(__DIR__ . '/../Support/server.php');
    }

    public static function tearDownAfterClass(): void
    {
        self::$server->stop();
    }

    public function testSendsMethodHeadersAndBodyAndReadsTheAnswer(): void
    {
        $response = (new CurlTransport())->send(new Request('PATCH', self::$server->url . '/echo?x=1', ['Content-Type' => 'application/json', 'X-Test' => 'yes'], '{"a":1}', 5.0, 5.0));

        self::assertSame(200, $response->status);
        self::assertSame('req_echo', $response->header('X-Request-Id'));
        self::assertSame('a=1, b=2', $response->header('set-cookie'));
        $echo = json_decode($response->body, true);
        self::assertSame('PATCH', $echo['method']);
        self::assertSame('/echo?x=1', $echo['uri']);
        self::assertSame('{"a":1}', $echo['body']);
        self::assertSame('yes', $echo['headers']['X-Test']);
    }

    public function testTheClientSendsItsHeadersOverCurl(): void
    {
        $client = new Client('client_1', 'key_secret', ['base_url' => self::$server->url]);

        $echo = $client->emails->send('p1', 'welcome', ['email' => 'ada@example.com']);

        self::assertSame('/v1/projects/p1/emails/welcome/send', $echo['uri']);
        self::assertSame('Basic ' . base64_encode('client_1:key_secret'), $echo['headers']['Authorization']);
        self::assertSame('application/json', $echo['headers']['Accept']);
        self::assertStringStartsWith('postbus-php/', $echo['headers']['User-Agent']);
        self::assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $echo['headers']['Idempotency-Key']);
    }

    public function testARefusedConnectionIsAConnectionException(): void
    {
        $port = LocalServer::freePort();

        try {
            (new CurlTransport())->send(new Request('GET', 'http://127.0.0.1:' . $port . '/v1/x?email=ada@example.com', [], null, 5.0, 5.0));
            self::fail('no exception');
        } catch (ConnectionException $e) {
            self::assertNotInstanceOf(TimeoutException::class, $e);
            self::assertStringNotContainsString('ada@example.com', $e->getMessage(), 'no query string (PII) in messages');
        }
    }

    public function testASlowAnswerIsATimeoutException(): void
    {
        $this->expectException(TimeoutException::class);
        (new CurlTransport())->send(new Request('GET', self::$server->url . '/slow', [], null, 0.3, 0.3));
    }

    public function testServerErrorsOverCurlAreServerExceptionsAfterRetries(): void
    {
        $sleeps = [];
        $client = new Client('c', 'k', ['base_url' => self::$server->url . '/v1/status/503', 'max_retries' => 2, 'sleep' => function (float $s) use (&$sleeps): void {
            $sleeps[] = $s;
        }]);

        try {
            $client->messages->list('p1');
            self::fail('no exception');
        } catch (ServerException $e) {
            self::assertSame(503, $e->getStatus());
            self::assertSame('/problems/test-503', $e->getType());
        }
        self::assertSame([0.0, 0.0], $sleeps, 'Retry-After: 0 honoured twice');
    }
}
