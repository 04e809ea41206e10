"""The web view: a gateway that relays the referee's ZeroMQ stream to browsers over WebSocket
(phones as hands, a shared table screen). One more display client of the referee, which stays
the one authority: the gateway only relays the public feed, each seat's own view and replies,
and the page's commands, unchanged.

    feed.py     the public state, kept by one StateMirror, fanned out to every page
    channel.py  one seat's ZeroMQ connection for one browser page (commands, its view, its secrets)
    links.py    seat links: the referee's seat tokens, held by the gateway, renewed to revoke
    app.py      the HTTP + WebSocket routes (starlette) and the static front end
    server.py   running it (uvicorn), in the foreground or beside a referee
"""
