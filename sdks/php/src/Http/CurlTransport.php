<?php

declare(strict_types=1);

namespace Postbus\Http;

use Postbus\Exception\ConnectionException;
use Postbus\Exception\TimeoutException;

/** The default transport, on ext-curl. */
final class CurlTransport implements Transport
{
    public function send(Request $request): Response
    {
        $handle = curl_init($request->url);
        if ($handle === false) {
            throw new ConnectionException('Could not initialise a curl handle.');
        }
        $headers = [];
        $headerLines = [];
        foreach ($request->headers as $name => $value) {
            $headerLines[] = $name . ': ' . $value;
        }
        // curl otherwise waits up to a second for "100 Continue" before sending a larger body.
        $headerLines[] = 'Expect:';
        $options = [
            CURLOPT_CUSTOMREQUEST => $request->method,
            CURLOPT_HTTPHEADER => $headerLines,
            CURLOPT_RETURNTRANSFER => true,
            // An API answer is never a redirect; following one could leak the credentials elsewhere.
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
            CURLOPT_TIMEOUT_MS => max(1, (int) round($request->timeout * 1000)),
            CURLOPT_CONNECTTIMEOUT_MS => max(1, (int) round($request->connectTimeout * 1000)),
            // Without it a timeout below one second is ignored on systems where curl uses signals.
            CURLOPT_NOSIGNAL => true,
            CURLOPT_HEADERFUNCTION => static function ($curl, string $line) use (&$headers): int {
                $colon = strpos($line, ':');
                if ($colon === false) {
                    // A status line: headers of an earlier response (100 Continue) do not count.
                    if (str_starts_with($line, 'HTTP/')) {
                        $headers = [];
                    }
                    return strlen($line);
                }
                $name = strtolower(trim(substr($line, 0, $colon)));
                $value = trim(substr($line, $colon + 1));
                $headers[$name] = isset($headers[$name]) ? $headers[$name] . ', ' . $value : $value;
                return strlen($line);
            },
        ];
        if ($request->body !== null) {
            $options[CURLOPT_POSTFIELDS] = $request->body;
        }
        curl_setopt_array($handle, $options);

        $body = curl_exec($handle);
        $errno = curl_errno($handle);
        $error = curl_error($handle);
        $status = (int) curl_getinfo($handle, CURLINFO_RESPONSE_CODE);
        curl_close($handle);

        $where = $request->method . ' ' . self::where($request->url);
        if ($errno === CURLE_OPERATION_TIMEDOUT) {
            throw new TimeoutException(sprintf('%s timed out after %.1f s.', $where, $request->timeout));
        }
        if ($errno !== 0 || !is_string($body)) {
            throw new ConnectionException(sprintf('%s failed: %s (curl error %d).', $where, $error, $errno));
        }
        return new Response($status, $headers, $body);
    }

    /** Scheme, host and path only: a query string may hold an email address, which stays out of messages. */
    private static function where(string $url): string
    {
        $query = strpos($url, '?');
        return $query === false ? $url : substr($url, 0, $query);
    }
}
