<?php

declare(strict_types=1);

// Router for `php -S`: a tiny stand-in gateway for the curl transport's tests.
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if (str_starts_with($path, '/slow')) {
    usleep(2_000_000);
}
if (str_starts_with($path, '/v1/status/')) {
    $status = (int) substr($path, strlen('/v1/status/'));
    http_response_code($status);
    header('Content-Type: application/problem+json');
    header('Retry-After: 0');
    echo json_encode(['type' => '/problems/test-' . $status, 'title' => 'Test', 'status' => $status]);
    return true;
}
header('Content-Type: application/json');
header('X-Request-Id: req_echo');
header('Set-Cookie: a=1');
header('Set-Cookie: b=2', false);
echo json_encode([
    'method' => $_SERVER['REQUEST_METHOD'],
    'uri' => $_SERVER['REQUEST_URI'],
    'headers' => getallheaders(),
    'body' => file_get_contents('php://input'),
]);
return true;
