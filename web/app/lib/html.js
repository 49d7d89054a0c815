/** htm bound to Preact: components written as tagged templates, so the page needs no build step. */
import htm from 'htm'
import { h } from 'preact'

export const html = htm.bind(h)
