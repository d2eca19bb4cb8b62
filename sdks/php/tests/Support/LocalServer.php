<?php

declare(strict_types=1);

namespace Postbus\Tests\Support;

/** `php -S` on a free port with a router script, for tests that need a real HTTP peer. */
final class LocalServer
{
    /** @var resource */
    private $process;

    public readonly string $url;

    /**
     * @param array<string, string> $env    added to this process's environment
     * @param string                $stderr where the server's log (and the router's error_log()) goes
     * @param int|null              $port   a port known in advance (e.g. already registered as a webhook URL)
     */
    public function __construct(string $router, array $env = [], string $stderr = '/dev/null', ?int $port = null)
    {
        $port ??= self::freePort();
        $this->url = 'http://127.0.0.1:' . $port;
        $command = [PHP_BINARY, '-S', '127.0.0.1:' . $port, $router];
        $process = proc_open($command, [0 => ['pipe', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', $stderr, 'a']], $pipes, null, $env + getenv());
        if (!is_resource($process)) {
            throw new \RuntimeException('could not start php -S');
        }
        $this->process = $process;
        // Ready when it accepts a connection; give up after 10 s.
        for ($i = 0; $i < 200; $i++) {
            $socket = @fsockopen('127.0.0.1', $port, $errno, $errstr, 0.2);
            if ($socket !== false) {
                fclose($socket);
                return;
            }
            usleep(50_000);
        }
        $this->stop();
        throw new \RuntimeException('php -S did not start listening');
    }

    public function stop(): void
    {
        proc_terminate($this->process);
        proc_close($this->process);
    }

    public static function freePort(): int
    {
        $server = stream_socket_server('tcp://127.0.0.1:0');
        if ($server === false) {
            throw new \RuntimeException('no free port');
        }
        $name = (string) stream_socket_get_name($server, false);
        fclose($server);
        return (int) substr($name, strrpos($name, ':') + 1);
    }
}
