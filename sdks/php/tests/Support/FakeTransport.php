<?php

declare(strict_types=1);

namespace Postbus\Tests\Support;

use Postbus\Http\Request;
use Postbus\Http\Response;
use Postbus\Http\Transport;

/** Answers from a script of responses or exceptions, and keeps every request it was given. */
final class FakeTransport implements Transport
{
    /** @var list<Request> */
    public array $requests = [];

    /** @var list<Response|\Throwable> */
    private array $script;

    /** @param list<Response|\Throwable> $script */
    public function __construct(array $script)
    {
        $this->script = $script;
    }

    public function send(Request $request): Response
    {
        $this->requests[] = $request;
        $next = array_shift($this->script);
        if ($next === null) {
            throw new \LogicException('The fake transport was sent more requests than it has answers for.');
        }
        if ($next instanceof \Throwable) {
            throw $next;
        }
        return $next;
    }

    /** @param array<string, mixed> $body */
    public static function json(int $status, array $body, array $headers = []): Response
    {
        $type = $status >= 400 ? 'application/problem+json' : 'application/json';
        return new Response($status, ['Content-Type' => $type] + $headers, json_encode($body, JSON_THROW_ON_ERROR));
    }

    /** @param array<string, mixed> $extra */
    public static function problem(int $status, string $slug, array $extra = [], array $headers = []): Response
    {
        return self::json($status, ['type' => '/problems/' . $slug, 'title' => 'Problem ' . $slug, 'status' => $status, 'request_id' => 'req_test'] + $extra, $headers);
    }

    public static function accepted(): Response
    {
        return self::json(200, ['status' => 'accepted', 'request_id' => 'req_1', 'message_id' => 'msg_1']);
    }
}
