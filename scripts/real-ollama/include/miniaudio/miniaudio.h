/*
 * Loupe's stand-in for miniaudio.h, written for building the Ollama server from
 * the Go module cache (Go module zips leave out llama.cpp's vendor/ folder, and
 * no Debian package ships miniaudio).
 *
 * Its only user is llama.cpp tools/mtmd/mtmd-helper.cpp, which decodes audio
 * input for multimodal models. This header declares just what that file uses,
 * and every decode fails: audio input is reported as undecodable, while text
 * and images work as usual. It contains no code from miniaudio.
 */
#ifndef LOUPE_MINIAUDIO_STANDIN_H
#define LOUPE_MINIAUDIO_STANDIN_H

#include <stddef.h>
#include <stdint.h>

#ifndef MA_API
#define MA_API extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t ma_uint32;
typedef uint64_t ma_uint64;

typedef int ma_result;
#define MA_SUCCESS          0
#define MA_ERROR           -1
#define MA_NOT_IMPLEMENTED -29

typedef enum {
    ma_format_unknown = 0,
    ma_format_u8      = 1,
    ma_format_s16     = 2,
    ma_format_s24     = 3,
    ma_format_s32     = 4,
    ma_format_f32     = 5
} ma_format;

typedef struct {
    ma_format format;
    ma_uint32 channels;
    ma_uint32 sampleRate;
} ma_decoder_config;

typedef struct {
    ma_decoder_config config;
} ma_decoder;

MA_API ma_decoder_config ma_decoder_config_init(ma_format outputFormat, ma_uint32 outputChannels, ma_uint32 outputSampleRate);
MA_API ma_result ma_decoder_init_memory(const void* pData, size_t dataSize, const ma_decoder_config* pConfig, ma_decoder* pDecoder);
MA_API ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder* pDecoder, ma_uint64* pLength);
MA_API ma_result ma_decoder_read_pcm_frames(ma_decoder* pDecoder, void* pFramesOut, ma_uint64 frameCount, ma_uint64* pFramesRead);
MA_API ma_result ma_decoder_uninit(ma_decoder* pDecoder);

#ifdef MINIAUDIO_IMPLEMENTATION

MA_API ma_decoder_config ma_decoder_config_init(ma_format outputFormat, ma_uint32 outputChannels, ma_uint32 outputSampleRate)
{
    ma_decoder_config config;
    config.format = outputFormat;
    config.channels = outputChannels;
    config.sampleRate = outputSampleRate;
    return config;
}

/* No decoders are built in: every input is refused. */
MA_API ma_result ma_decoder_init_memory(const void* pData, size_t dataSize, const ma_decoder_config* pConfig, ma_decoder* pDecoder)
{
    (void)pData;
    (void)dataSize;
    if (pDecoder != NULL && pConfig != NULL) {
        pDecoder->config = *pConfig;
    }
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder* pDecoder, ma_uint64* pLength)
{
    (void)pDecoder;
    if (pLength != NULL) {
        *pLength = 0;
    }
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_read_pcm_frames(ma_decoder* pDecoder, void* pFramesOut, ma_uint64 frameCount, ma_uint64* pFramesRead)
{
    (void)pDecoder;
    (void)pFramesOut;
    (void)frameCount;
    if (pFramesRead != NULL) {
        *pFramesRead = 0;
    }
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_uninit(ma_decoder* pDecoder)
{
    (void)pDecoder;
    return MA_SUCCESS;
}

#endif /* MINIAUDIO_IMPLEMENTATION */

#ifdef __cplusplus
}
#endif

#endif /* LOUPE_MINIAUDIO_STANDIN_H */
