#!/usr/bin/env bash
# Placeholder replaced by the fuzz targets commit.
exit 0
