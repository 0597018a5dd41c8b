# The bot on the embedded SQLite store, built with the same steps as README.md.
FROM python:3.11.10-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GUANDAN_DB=/data/guandan.db

# make runs the README's steps; the fonts come with the source (render/fonts/).
RUN apt-get update \
    && apt-get install -y --no-install-recommends make \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 guandan \
    && mkdir /data && chown guandan:guandan /data

WORKDIR /app
COPY --chown=guandan:guandan . /app
USER guandan

# Same as `make run` up to starting the bot: venv, install, compile catalogs.
RUN make install translations

VOLUME ["/data"]
CMD [".venv/bin/python", "bot.py"]
